#!/bin/sh
echo "validated task $1: $2"
