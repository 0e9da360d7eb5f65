// The Prediction module; see Package.swift for its role.
