"""The study app: one Django app (the custom user lives in it), organised by area.

models/ the tables; content/ importing and exporting documents; study/ FSRS scheduling,
answers and sessions; progress/ the dashboard and history; teaching/ assignment rules, the
gradebook and item analysis; views/ the pages; lib/ helpers that know nothing of studying.
"""
