// The output sinks live in their own module (Sinks), which the loop drives through TerminalLink and
// DesktopLink; the user's files (UserFiles) and the services the loop asks (LiveServices) too. Importers of
// Runtime get all three.
@_exported import Sinks
@_exported import UserFiles
@_exported import LiveServices
