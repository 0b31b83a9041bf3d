"""Rules over master configs (`configs/*-master.yaml`)."""
