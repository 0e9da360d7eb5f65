// The output sinks live in their own module (Sinks), which the loop drives through TerminalLink and
// DesktopLink; importers of Runtime get them too.
@_exported import Sinks
