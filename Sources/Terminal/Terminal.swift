// The Terminal module; see Package.swift for its role.
