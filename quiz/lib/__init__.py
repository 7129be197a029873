"""Small helpers that know nothing of study content: SQL expressions for both databases
(`sql`), spreadsheet-safe CSV downloads (`csv_export`), how durations are written for people
(`durations`) and page-or-partial responses for HTMX (`http`)."""
