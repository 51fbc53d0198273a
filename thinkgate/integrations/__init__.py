"""Glue to serving engines and libraries: vLLM, SGLang, Hugging Face transformers."""
