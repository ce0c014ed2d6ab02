"""The SDK's error messages, in one reviewed table."""
