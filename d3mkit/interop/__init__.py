"""Other dataset formats a task root is read or written as: Croissant 1.1 JSON-LD
(:mod:`.croissant`, export and import) and Hugging Face ``datasets`` (:mod:`.hf`, export).
The field mapping and what does not map: docs/interop.md."""
