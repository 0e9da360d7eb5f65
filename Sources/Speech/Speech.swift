// The Speech module; see Package.swift for its role.
