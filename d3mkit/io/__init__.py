"""Files and processes: atomic writes, resource limits, paths kept inside a root, the read
log, untrusted images, a second thread, byte builders and the executor."""
