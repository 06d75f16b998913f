"""A made-up study built by the same engine: three optimisers on a noisy quadratic."""
