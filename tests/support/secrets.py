"""Credentials used by tests; the suite fails if any of them reaches a log record."""

TEST_API_KEY = "mxk_test_4f1c9a7e2b6d8053a1e7"
TEST_USER_ID = "user-test-0001"
TEST_BEARER_TOKEN = "mxt_bearer_93b2e6f1c0d74a58"

SECRETS = (TEST_API_KEY, TEST_BEARER_TOKEN)
