// The Shell module; see Package.swift for its role.
