"""The app as an LTI 1.3 tool: a course of Moodle, Canvas or any LMS launches into a class here.

The protocol is django-lti's and pylti1p3's (registrations, keys, the OIDC login, every check of a
launch); this package adds what is the app's own: which launches it accepts (launches.py: known
deployments only, each id_token once), whose account a launch signs in (accounts.py), and which
class an LMS course is (classes.py). docs/lti.md tells an administrator how to register a platform.
"""
