"""`make bench` and `make explain`: benchmarks, not tests (they print). Their server runs the
app with `bench.settings`, which adds the bare page every page is measured against."""
