// The cell grid, hit map, canvas and keys live in the pure CellUI module, which the curses backend imports
// without the Shell; importers of Shell get them too.
@_exported import CellUI
