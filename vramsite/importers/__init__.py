"""`build.py model add CONFIG`: a Hugging Face config.json becomes an entry of the site's data/catalogue.yaml.

config.json (untrusted)
  -> json_file.py      the JSON object, each key once, with the line of each key for messages
  -> config_values.py  typed, bounded values; every bad key noted as a problem
  -> hf_config.py      the architecture's rules: where its keys are, each layer's kind, experts, MLA; a kind's
                       fields are read by the keys its module names (calc/layers/)
  -> params.py         the parameter count (total and per token), from the config or a safetensors index
  -> entry.py          the catalogue entry, its layers grouped by kind, checked by the catalogue's schema
  -> catalogue_file.py data/catalogue.yaml with the entry appended, comments and order kept
  -> data_file.py      the data file read within check's bounds, replaced only if unchanged (prices import too)
  -> command.py        every problem gathered; under the site's edit lock, the file written in one step, or not at all

catalogue_schema.py writes the layer groups of vramsite/schemas/catalogue.schema.json from the layer kinds.
"""
