package connector

import (
	"slices"
	"strings"

	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/config"
)

// TopicPlan returns the plan of every topic cfg uses (TopicWants) under s:
// what `connector topics apply` creates and `connector topics verify`
// compares the cluster with, the command topics in name order. The
// session-updates and webhook-events topics carry whole webhook bodies, so
// their max.message.bytes leaves room for the largest body the webhook
// endpoint accepts (PAYSESSION_WEBHOOK_MAX_BODY_BYTES).
func TopicPlan(cfg *config.Config, s topics.Settings) (topics.Plan, error) {
	body := int(cfg.Webhook.MaxBodyBytes)
	s.RecordBytes = map[topics.Role]int{topics.SessionUpdates: body, topics.WebhookEvents: body}
	return topics.NewPlan(sortedCommands(TopicWants(cfg)), s)
}

// sortedCommands returns wants with the command topics' wants in name
// order, in the places the command wants had.
func sortedCommands(wants []topics.Want) []topics.Want {
	var at []int
	var commands []topics.Want
	for i, w := range wants {
		if w.Role == topics.Command {
			at = append(at, i)
			commands = append(commands, w)
		}
	}
	slices.SortStableFunc(commands, func(a, b topics.Want) int { return strings.Compare(a.Topic, b.Topic) })
	out := slices.Clone(wants)
	for j, i := range at {
		out[i] = commands[j]
	}
	return out
}
