"""The README's code blocks, extracted from README.md itself and run against the fake."""
