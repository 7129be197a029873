"""Studying: FSRS scheduling (`scheduling`), what a session shows next (`queue`), answering
quiz questions (`answers`), study sessions kept server side (`sessions`) and bringing attempts
up to date with the clock (`catch_up`)."""
