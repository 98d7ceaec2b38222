# Local test configuration.
# The unicode slug tests depend on the ICU data of the host and are run in
# the i18n job only.
collect_ignore = ["tests/test_slug_unicode.py"]
