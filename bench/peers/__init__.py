"""The same wire format modelled with pydantic v2 and msgspec, for the benchmarks only."""
