// The Transport module; see Package.swift for its role.
