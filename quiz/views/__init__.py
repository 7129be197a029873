"""The app's pages, one module per area: `quizzes` (taking an attempt and its results),
`study` (flashcards, review, drill), `dashboard` (the home page), `history`, `accounts`,
`classes` (a learner's classes and assignments), `library` (one's own content and importing
it) and `teach` (the instructor's pages).
`access` holds the scoped fetches and role checks they share; `health` is the health check.

Each view reads like the request's story: decorators for method and login, a scoped fetch
that 404s on anything the user may not see, a form to validate, one model verb, then a
redirect (plain form post) or a partial of the same template (HTMX, via `render_page`).
"""
