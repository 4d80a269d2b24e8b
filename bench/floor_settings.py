"""The product's settings plus two bare endpoints (bench/floor_urls.py): the floor of the labelling benchmark."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor_urls"
