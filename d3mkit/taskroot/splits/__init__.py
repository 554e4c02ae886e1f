"""The dataSplits file: planned (:mod:`.plan`), written (:mod:`.write`), read (:mod:`.read`)
and regenerated from a problemDoc (:mod:`.regenerate`)."""
