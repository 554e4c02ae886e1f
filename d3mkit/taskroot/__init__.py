"""A task root: its model (:mod:`.model`), its atomic writer (:mod:`.writer`), the blind views,
the digests and the dataSplits file (:mod:`.splits`)."""
