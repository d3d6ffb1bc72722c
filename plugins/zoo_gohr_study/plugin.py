"""The zoo plugin of GOHR difficulty studies."""
