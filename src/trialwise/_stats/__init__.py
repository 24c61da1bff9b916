"""trialwise's private numerics, shared by every domain package (not public API).

``tables`` (the only step from items to count tables), ``kappa`` (κ and its closed forms on count
tables of any batch shape; the public ones are exported by :mod:`trialwise.ec`), ``significance``
(exact and asymptotic tests of κ = 0, multiplicity), ``intervals`` (every interval method, one
dispatch), ``resampling`` (the resampling engine: bootstrap weights, chunked W @ X, Jeffreys
draws, Monte-Carlo tests, child random streams, seeds), ``blocks`` (the one driver of the
bootstraps run block by block: blocks of pairs and units), ``distributed`` (the Dask glue).
"""
