"""Asynchronous SDK for the Edge Delivery Management API."""
