// `slipway completion [bash|zsh]`: a completion script for the command names and each command's options,
// read from the command tree itself so it never falls behind.
import { env } from "../env.ts";
import { buildProgram } from "../program.ts";
import { CliError, print } from "../output.ts";

export function completion(shell: string | undefined) {
  const which = shell ?? (env.shell()?.endsWith("zsh") ? "zsh" : "bash");
  const program = buildProgram();
  const commands = program.commands.map((c) => c.name());
  const optionsOf = (name: string) =>
    [...(program.commands.find((c) => c.name() === name)?.options ?? []), ...program.options.filter((o) => o.long === "--server")]
      .flatMap((o) => [o.long, o.short])
      .filter(Boolean)
      .join(" ");
  const cases = commands.map((c) => `    ${c}) opts="${optionsOf(c)} --help" ;;`).join("\n");
  // Words come from COMP_LINE rather than COMP_WORDS, which bash splits at ":" (apps:create).
  const bash = `# slipway bash completion: eval "$(slipway completion bash)"
_slipway() {
  local line="\${COMP_LINE:0:COMP_POINT}" cur="" cmd opts words
  read -ra words <<< "$line"
  local count=\${#words[@]}
  if [[ "$line" != *" " ]]; then cur="\${words[count-1]}"; count=$((count - 1)); fi
  cmd="\${words[1]}"
  if [ "$count" -le 1 ]; then
    opts="${commands.join(" ")} --help --version"
  else
    case "$cmd" in
${cases.replace(/^ {4}/gm, "      ")}
      *) opts="--help" ;;
    esac
  fi
  COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  if [[ "$cur" == *:* ]]; then
    local prefix="\${cur%:*}:" i
    for i in "\${!COMPREPLY[@]}"; do COMPREPLY[i]="\${COMPREPLY[i]#"$prefix"}"; done
  fi
}
complete -o default -F _slipway slipway`;
  if (which === "bash") return print(bash);
  if (which === "zsh") return print(`# slipway zsh completion: eval "$(slipway completion zsh)"\nautoload -U +X bashcompinit && bashcompinit\n${bash}`);
  throw new CliError(`No completion for "${which}": use bash or zsh.`);
}
