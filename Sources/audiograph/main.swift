import Foundation

// A closed stdout pipe must not kill a run before its outputs are finalized.
signal(SIGPIPE, SIG_IGN)
exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
