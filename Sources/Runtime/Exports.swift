// The output sinks live in their own module (Sinks), which the loop drives through TerminalLink and
// DesktopLink; the user's files (UserFiles), the services the loop asks (LiveServices) and the desktop's
// controls (Controls) too. Importers of Runtime get all four.
@_exported import Sinks
@_exported import UserFiles
@_exported import LiveServices
@_exported import Controls
