// Go source (a service package) from a case's vocabulary.
import { camel, pascal, phrase, type Flavor, type Vocabulary } from "./names.js";
import type { Prng } from "./prng.js";

function goFunction(rng: Prng, vocab: Vocabulary, flavor: Flavor): string[] {
  const words = phrase(rng, vocab);
  const name = rng.chance(0.6) ? pascal(...words) : camel(...words);
  const noun = words[1];
  const T = pascal(noun);
  switch (rng.pick(flavor === "operator" ? [1, 3, 3] : [0, 1, 2])) {
    case 0:
      return [
        `func (s *Store) ${name}(ctx context.Context, accountID string, limit int) ([]${T}, error) {`,
        `\tif limit <= 0 || limit > ${rng.int(2, 20) * 50} {`,
        `\t\treturn nil, fmt.Errorf("${name}: limit %d out of range", limit)`,
        `\t}`,
        `\trows, err := s.db.QueryContext(ctx, "SELECT id, status, updated_at FROM ${noun}s WHERE account_id = $1 ORDER BY id LIMIT $2", accountID, limit)`,
        `\tif err != nil {`,
        `\t\treturn nil, fmt.Errorf("${name}: %w", err)`,
        `\t}`,
        `\tdefer rows.Close()`,
        `\tvar out []${T}`,
        `\tfor rows.Next() {`,
        `\t\tvar x ${T}`,
        `\t\tif err := rows.Scan(&x.ID, &x.Status, &x.UpdatedAt); err != nil {`,
        `\t\t\treturn nil, err`,
        `\t\t}`,
        `\t\tout = append(out, x)`,
        `\t}`,
        `\treturn out, rows.Err()`,
        `}`,
      ];
    case 1:
      return [
        `func ${name}(items []${T}) map[string][]${T} {`,
        `\tgroups := make(map[string][]${T}, len(items))`,
        `\tfor _, it := range items {`,
        `\t\tgroups[it.${rng.pick(["Status", "Region", "OwnerID"])}] = append(groups[it.${rng.pick(["Status", "Region", "OwnerID"])}], it)`,
        `\t}`,
        `\treturn groups`,
        `}`,
      ];
    case 3:
      return [
        `func (r *Reconciler) ${name}(ctx context.Context, obj *v1.${T}) (ctrl.Result, error) {`,
        `\tlog := ctrl.LoggerFrom(ctx).WithValues("${noun}", obj.Name)`,
        `\tvar children batchv1.JobList`,
        `\tif err := r.List(ctx, &children, client.InNamespace(obj.Namespace), client.MatchingLabels{"${noun}": obj.Name}); err != nil {`,
        `\t\treturn ctrl.Result{}, fmt.Errorf("${name}: listing jobs: %w", err)`,
        `\t}`,
        `\tif len(children.Items) > ${rng.int(2, 12)} {`,
        `\t\tlog.Info("too many jobs, waiting", "count", len(children.Items))`,
        `\t\treturn ctrl.Result{Requeue: true}, nil`,
        `\t}`,
        `\treturn ctrl.Result{}, nil`,
        `}`,
      ];
    default:
      return [
        `func (h *Handler) ${name}(w http.ResponseWriter, r *http.Request) {`,
        `\tid := chi.URLParam(r, "id")`,
        `\tx, err := h.store.Get${T}(r.Context(), id)`,
        `\tif errors.Is(err, ErrNotFound) {`,
        `\t\thttp.Error(w, "not found", http.StatusNotFound)`,
        `\t\treturn`,
        `\t}`,
        `\tif err != nil {`,
        `\t\th.log.Error("${name}", "id", id, "err", err)`,
        `\t\thttp.Error(w, "internal error", http.StatusInternalServerError)`,
        `\t\treturn`,
        `\t}`,
        `\twriteJSON(w, http.StatusOK, x)`,
        `}`,
      ];
  }
}

export function goFile(rng: Prng, vocab: Vocabulary, lines: number, pkg: string, flavor: Flavor): string {
  const imports =
    flavor === "operator"
      ? [`\t"context"`, `\t"fmt"`, ``, `\tbatchv1 "k8s.io/api/batch/v1"`, `\tctrl "sigs.k8s.io/controller-runtime"`, `\t"sigs.k8s.io/controller-runtime/pkg/client"`, ``, `\tv1 "github.com/pgdev/pg-backup-operator/api/v1"`]
      : [`\t"context"`, `\t"errors"`, `\t"fmt"`, `\t"net/http"`, ``, `\t"github.com/go-chi/chi/v5"`];
  const out = [`package ${pkg}`, ``, `import (`, ...imports, `)`, ``];
  while (out.length < lines) out.push(...goFunction(rng, vocab, flavor), "");
  return out.join("\n");
}
