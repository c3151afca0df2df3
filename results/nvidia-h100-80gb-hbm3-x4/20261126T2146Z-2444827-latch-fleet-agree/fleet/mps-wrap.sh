#!/bin/sh
[ "$OMPI_COMM_WORLD_LOCAL_RANK" = 3 ] && export CUDA_MPS_PIPE_DIRECTORY=/tmp/rb-fleet-mps
exec "$@"
