"""GOHR difficulty studies: cumulative-error reports, rule rankings and multi-run studies."""
