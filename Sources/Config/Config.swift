// The Config module; see Package.swift for its role.
