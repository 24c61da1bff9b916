"""trialwise's private numerics, shared by every domain package (not public API).

``tables`` (the only step from items to count tables), ``kappa`` (κ and its closed forms on count
tables of any batch shape; the public ones are exported by :mod:`trialwise.ec`), ``significance``
(exact and asymptotic tests of κ = 0, multiplicity), ``intervals`` (every interval method, one
dispatch), the resampling engine — ``resampling`` (bootstrap weights, chunked W @ X, Jeffreys
draws, leave-one-out replicates), ``streams`` (child random streams, seeds), ``monte_carlo`` (the
null loop) and ``splits`` (random half splits, with Brain-Score's own streams) — ``blocks`` (the
one driver of the bootstraps run block by block: blocks of pairs and units) and
``distributed`` (the Dask glue).
"""
