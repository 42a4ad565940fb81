import AudioGraph
import Foundation

/// `audiograph completion bash|zsh|fish`: a completion script made from the command table (`CLI.commands`):
/// each command's name and the options it declares (`Command.options`, what it parses).
struct CompletionCommand: Command {
    static let name = "completion"
    static let abstract = "Print a shell completion script (bash, zsh or fish)"
    static let usage = "audiograph completion bash|zsh|fish"
    static let options =  CommandOptions.none
    static let help = """
        \(abstract), made from the same command table that prints --help.

        USAGE: \(usage)

          bash:  source <(audiograph completion bash)         (or save it in ~/.local/share/bash-completion/completions/audiograph)
          zsh:   audiograph completion zsh > "${fpath[1]}/_audiograph"
          fish:  audiograph completion fish > ~/.config/fish/completions/audiograph.fish
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let shell = try Arguments(arguments, Self.options).requirePositionals(["shell"])[0]
        let table = CLI.commands.map { ($0.name, $0.options.names + ["--help"]) }
        switch shell {
        case "bash": Console.writeOut(CompletionScripts.bash(table))
        case "zsh": Console.writeOut(CompletionScripts.zsh(table))
        case "fish": Console.writeOut(CompletionScripts.fish(table))
        default:
            throw GraphError(.usage, at: shell, "unknown shell" + Suggestions.hint(for: shell, in: ["bash", "zsh", "fish"])
                + "; shells: bash, zsh, fish")
        }
        return 0
    }
}

/// The completion scripts, from (command, options) pairs.
enum CompletionScripts {
    static func bash(_ table: [(String, [String])]) -> String {
        var script = """
            # bash completion for audiograph (audiograph completion bash)
            _audiograph() {
                local current=${COMP_WORDS[COMP_CWORD]}
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(table.map(\.0).joined(separator: " ")) --help --version -V" -- "$current"))
                    return
                fi
                local options=""
                case "${COMP_WORDS[1]}" in

            """
        for (command, options) in table {
            script += "        \(command)) options=\"\(options.joined(separator: " "))\" ;;\n"
        }
        script += """
                esac
                if [[ "$current" == -* ]]; then
                    COMPREPLY=($(compgen -W "$options" -- "$current"))
                else
                    COMPREPLY=($(compgen -f -- "$current"))
                fi
            }
            complete -o filenames -F _audiograph audiograph

            """
        return script
    }

    static func zsh(_ table: [(String, [String])]) -> String {
        var script = """
            #compdef audiograph
            # zsh completion for audiograph (audiograph completion zsh)
            _audiograph() {
              if (( CURRENT == 2 )); then
                compadd -- \(table.map(\.0).joined(separator: " ")) --help --version -V
                return
              fi
              case ${words[2]} in

            """
        for (command, options) in table {
            script += "    \(command)) _arguments '*:file:_files' \(options.map { "'\($0)'" }.joined(separator: " ")) ;;\n"
        }
        script += """
              esac
            }
            _audiograph "$@"

            """
        return script
    }

    static func fish(_ table: [(String, [String])]) -> String {
        var lines = ["# fish completion for audiograph (audiograph completion fish)",
                     "complete -c audiograph -f -n __fish_use_subcommand -a '\(table.map(\.0).joined(separator: " "))'"]
        for (command, options) in table {
            for option in options {
                let flag = option.hasPrefix("--") ? "-l \(option.dropFirst(2))" : "-s \(option.dropFirst())"
                lines.append("complete -c audiograph -n '__fish_seen_subcommand_from \(command)' \(flag)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
