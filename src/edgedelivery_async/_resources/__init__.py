"""One resource class per API area; `EdgeDeliveryClient` exposes them as attributes."""
