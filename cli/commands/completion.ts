// `slipway completion [bash|zsh]`: a completion script for the command names and each command's options,
// read from the command tree itself so it never falls behind.
import { buildProgram } from "../program.ts";
import { CliError, print } from "../output.ts";

export function completion(shell: string | undefined) {
  const which = shell ?? (process.env.SHELL?.endsWith("zsh") ? "zsh" : "bash");
  const program = buildProgram();
  const commands = program.commands.map((c) => c.name());
  const optionsOf = (name: string) =>
    [...(program.commands.find((c) => c.name() === name)?.options ?? []), ...program.options].flatMap((o) => [o.long, o.short]).filter(Boolean).join(" ");
  const cases = commands.map((c) => `    ${c}) opts="${optionsOf(c)} --help" ;;`).join("\n");
  const bash = `# slipway bash completion: eval "$(slipway completion bash)"
_slipway() {
  local cur cmd opts
  cur="\${COMP_WORDS[COMP_CWORD]}"
  cmd="\${COMP_WORDS[1]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${commands.join(" ")} --help --version" -- "$cur") )
    return
  fi
  case "$cmd" in
${cases}
    *) opts="--help" ;;
  esac
  COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
}
complete -o default -F _slipway slipway`;
  if (which === "bash") return print(bash);
  if (which === "zsh") return print(`# slipway zsh completion: eval "$(slipway completion zsh)"\nautoload -U +X bashcompinit && bashcompinit\n${bash}`);
  throw new CliError(`No completion for "${which}": use bash or zsh.`);
}
