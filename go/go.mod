module asyncstyles

go 1.21
