"""The editor: a user's own question sets and decks changed item by item in the browser.

`forms` validates what the editor pages send, with the importer's rules; `changes` writes it.
Attempts are never touched: each slot keeps a snapshot of what its learner saw.
"""
