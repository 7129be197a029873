"""The editor: a user's own question sets and decks changed item by item in the browser.

`forms` validates what the editor pages send, with the importer's rules (and holds the import
page's and the sharing forms); `changes` writes it.
Attempts are never touched: each slot keeps a snapshot of what its learner saw.
"""
