package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	dnetwork "github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/testcontainers/testcontainers-go"
)

// Remove removes the containers, networks and volumes of the cluster whose RunID is run, for a
// cluster that outlived the process that started it (Detach). Nothing left is not an error.
func Remove(ctx context.Context, run string) error {
	if run == "" {
		return errors.New("remove cluster: no run id")
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("remove cluster: docker: %w", err)
	}
	defer cli.Close()
	f := filters.NewArgs(filters.Arg("label", Label+"="+run))
	var errs []error
	ctrs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	errs = append(errs, err)
	for _, c := range ctrs {
		_ = cli.ContainerUnpause(ctx, c.ID) // a paused container cannot be removed
		errs = append(errs, cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}))
	}
	vols, err := cli.VolumeList(ctx, volume.ListOptions{Filters: f})
	errs = append(errs, err)
	for _, v := range vols.Volumes {
		errs = append(errs, cli.VolumeRemove(ctx, v.Name, true))
	}
	nets, err := cli.NetworkList(ctx, dnetwork.ListOptions{Filters: f})
	errs = append(errs, err)
	for _, n := range nets {
		errs = append(errs, cli.NetworkRemove(ctx, n.ID))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove cluster %s: %w", run, err)
	}
	return nil
}

// Detach lets the cluster outlive this process: Close does nothing afterwards, and Remove with
// its RunID removes it.
func (c *Cluster) Detach() {
	c.nodes, c.network = nil, nil
	if c.docker != nil {
		_ = c.docker.Close()
		c.docker = nil
	}
}
