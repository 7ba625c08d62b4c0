// This target holds only code generated from docs/openapi.yaml (see openapi-generator-config.yaml); nothing is
// written by hand here.
