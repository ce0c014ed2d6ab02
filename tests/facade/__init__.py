"""Tests of the facade (`edgedelivery_async`), one file per concern."""
