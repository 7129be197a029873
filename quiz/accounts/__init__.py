"""A learner's account beyond signing in: a verified email (`emails`), the reminders they asked for
(`reminders`), their data to take away (`export`) or delete (`deletion`), their signed-in devices
(`devices`)."""
