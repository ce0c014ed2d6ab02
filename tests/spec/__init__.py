"""Tests of the OpenAPI document, the generated package and the regeneration pipeline."""
