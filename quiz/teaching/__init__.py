"""The instructor's side, beyond the models: assignment rules as a learner meets them
(`rules`), the gradebook and its grading rules (`gradebook`), item analysis (`item_analysis`)
and the CSV exports (`exports`)."""
