package conversation

// Exit codes of a turn's outcome: `hub run`'s, CI's contract, and best of
// N's (hub run --agents, /compare), which ranks the candidates by them.
const (
	ExitOK               = 0
	ExitAgentError       = 1
	ExitUsage            = 2
	ExitNotInstalled     = 3
	ExitNotAuthenticated = 4
	ExitTimeout          = 5
	ExitDenied           = 6
	ExitBudget           = 7  // a budget (--max-turns, --max-tokens, --max-cost) stopped the agent unfinished
	ExitMaxTokens        = 8  // the model stopped at its output token limit; the text that arrived is kept
	ExitRefusal          = 9  // the model refused; the text that arrived is kept
	ExitSchema           = 10 // the final answer did not match --output-schema, also after the repair turn
	ExitInterrupted      = 130
)
