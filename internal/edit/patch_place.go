package edit

import (
	"sort"
	"strings"
)

// Placing the hunks of an Update. A hunk goes where its context and -
// lines match, after the previous hunk: hunks are in the file's order.
//
// Its @@ lines are evidence, not scope. They choose among the places the
// context matches: inside the anchor's block first, then below it with no
// other block of its kind in between, then anywhere. git names the nearest
// line its rule matched, not always the enclosing one, so context that fits
// one place is never refused for its anchor; only when the places the
// anchors do name lie before the previous hunk is the hunk refused, since
// anchors and order then disagree.
//
// When a hunk's context matches several places, the hunks' order decides:
// the patch applies when exactly one order-consistent choice of places
// exists for all its hunks, and is refused, naming the places, when two do.

// The tiers of a place: what the hunk's anchors say of it.
const (
	tierScoped = iota // inside the blocks the anchors open
	tierBelow         // below the anchors, no other block of their kind between
	tierElse          // the anchors are not above it
	tierCount
)

// hunkSpot is one hunk being placed.
type hunkSpot struct {
	h                  patchHunk // without a BOM on its first lines
	wantBOM, changeBOM bool
	chain              [][]int // for each anchor, the lines that read like it
	missing            string  // an anchor no line of the file reads like
	forms              []*hunkForm
	memo               map[int]*hunkPlaces
	tiers              map[candidate]int
}

// hunkForm is one reading of a hunk (as written; without the bare blank
// lines before *** End of File) with what each rung of the ladder finds
// of it in the whole text, run when first needed.
type hunkForm struct {
	h     patchHunk
	q     matchQuery
	rungs []*rungHits // by ladder index; nil: not run yet
	ran   []bool
}

// hunkPlaces is where a hunk can go after some offset: the candidates of
// one rung, all of one tier.
type hunkPlaces struct {
	form  *hunkForm
	hits  rungHits
	cands []candidate
	tier  int
	// conflict: the context lies under the anchors only at these places,
	// before the previous hunk; elsewhere are the places after it.
	conflict, elsewhere []candidate
}

// Bounds on the search for an order-consistent choice: a hunk with more
// places than maxOrderPlaces is not settled by the others' order (its
// context is a lone "}"), and past placeBudget steps no place counts as
// settled. Either way the patch is refused, never applied by a guess.
const (
	maxOrderPlaces = 64
	placeBudget    = 1_000_000
)

// placer places the hunks of one Update.
type placer struct {
	text   string
	cache  *textCache
	ix     *lineIndex
	spots  []*hunkSpot
	counts map[[2]int]int
	steps  int
}

// placedHunk is a hunk and the place chosen for it.
type placedHunk struct {
	spot   *hunkSpot
	places *hunkPlaces
	at     candidate
}

// placeHunks chooses a place for every hunk, or says why it cannot.
func placeHunks(text string, hunks []patchHunk, cache *textCache) ([]placedHunk, *hunkError) {
	p := &placer{text: text, cache: cache, ix: cache.lines(text), counts: map[[2]int]int{}}
	for _, h := range hunks {
		p.spots = append(p.spots, p.newSpot(h))
	}
	var out []placedHunk
	pos := 0
	for i, s := range p.spots {
		ps := s.placesAt(p, pos)
		if len(ps.cands) > maxOrderPlaces {
			return nil, p.ambiguous(i, ps)
		}
		var viable []candidate
		for _, c := range ps.cands {
			if p.count(i+1, c.end) > 0 {
				if viable = append(viable, c); len(viable) > 1 {
					break
				}
			}
		}
		switch {
		case len(viable) == 1:
			out = append(out, placedHunk{s, ps, viable[0]})
			pos = viable[0].end
			continue
		case len(viable) > 1:
			return nil, p.ambiguous(i, ps)
		case len(ps.cands) == 0:
			return nil, p.failure(i, pos, ps)
		}
		// Every place of this hunk leaves a later hunk none: blame the
		// first later hunk that has none after this one's first place.
		pos = ps.cands[0].end
		for j := i + 1; j < len(p.spots); j++ {
			next := p.spots[j].placesAt(p, pos)
			if len(next.cands) == 0 {
				return nil, p.failure(j, pos, next)
			}
			pos = next.cands[0].end
		}
		return nil, p.failure(len(p.spots)-1, pos, &hunkPlaces{})
	}
	return out, nil
}

// count is how many order-consistent choices of places hunks i… have
// after pos, up to 2.
func (p *placer) count(i, pos int) int {
	if i == len(p.spots) {
		return 1
	}
	key := [2]int{i, pos}
	if n, ok := p.counts[key]; ok {
		return n
	}
	cands := p.spots[i].placesAt(p, pos).cands
	if len(cands) > maxOrderPlaces {
		return 2
	}
	n := 0
	for _, c := range cands {
		if p.steps++; p.steps > placeBudget {
			return 2
		}
		if n += p.count(i+1, c.end); n >= 2 {
			n = 2
			break
		}
	}
	p.counts[key] = n
	return n
}

func (p *placer) newSpot(h patchHunk) *hunkSpot {
	s := &hunkSpot{memo: map[int]*hunkPlaces{}, tiers: map[candidate]int{}}
	s.h, s.wantBOM, s.changeBOM = hunkBOM(h)
	for _, a := range s.h.anchors {
		lines, ok := anchorLines(p.text, a, p.ix)
		if !ok {
			s.missing, s.chain = a, nil
			break
		}
		if lines != nil {
			s.chain = append(s.chain, lines)
		}
	}
	s.forms = append(s.forms, p.newForm(s.h))
	if s.h.bareTail > 0 {
		s.forms = append(s.forms, p.newForm(s.h.withoutBareTail()))
	}
	return s
}

func (p *placer) newForm(h patchHunk) *hunkForm {
	return &hunkForm{
		h:     h,
		q:     matchQuery{old: joinLines(h.old()), new: joinLines(h.new()), lines: true, atEOF: h.eof, script: h.script(), cache: p.cache},
		rungs: make([]*rungHits, len(ladder)),
		ran:   make([]bool, len(ladder)),
	}
}

// rung is what rung k finds of the form in the whole text; nil when the
// rung does not apply.
func (f *hunkForm) rung(text string, k int) *rungHits {
	if !f.ran[k] {
		f.ran[k] = true
		if h, ok := ladder[k].hits(text, f.q); ok {
			f.rungs[k] = &h
		}
	}
	return f.rungs[k]
}

// after is the candidates of rung k that start at or after pos.
func (f *hunkForm) after(text string, k, pos int) []candidate {
	h := f.rung(text, k)
	if h == nil {
		return nil
	}
	if len(h.cands) >= maxCandidates && pos > 0 {
		// The list stopped short: places past it are unknown, so search
		// again from pos.
		q := f.q
		q.from = pos
		again, _ := ladder[k].hits(text, q)
		return again.cands
	}
	i := sort.Search(len(h.cands), func(i int) bool { return h.cands[i].start >= pos })
	return h.cands[i:]
}

// placesAt is where the hunk can go at or after pos: the first form with
// any place, its best tier, and in that tier the first rung with any.
func (s *hunkSpot) placesAt(p *placer, pos int) *hunkPlaces {
	if ps, ok := s.memo[pos]; ok {
		return ps
	}
	var ps *hunkPlaces
	for _, f := range s.forms {
		if ps = s.formPlaces(p, f, pos); len(ps.cands) > 0 {
			break
		}
	}
	s.memo[pos] = ps
	return ps
}

func (s *hunkSpot) formPlaces(p *placer, f *hunkForm, pos int) *hunkPlaces {
	if len(f.h.old()) == 0 {
		return s.insertionPlaces(p, f, pos)
	}
	var best [tierCount]*hunkPlaces
	for k := range ladder {
		cands := f.after(p.text, k, pos)
		var byTier [tierCount][]candidate
		p.steps += len(cands)
		for _, c := range cands {
			t := s.tier(p, c)
			byTier[t] = append(byTier[t], c)
		}
		for t := range tierCount {
			if best[t] == nil && len(byTier[t]) > 0 {
				best[t] = &hunkPlaces{form: f, hits: *f.rung(p.text, k), cands: byTier[t], tier: t}
			}
		}
		if best[tierScoped] != nil {
			break
		}
	}
	for _, b := range best {
		if b == nil {
			continue
		}
		if b.tier == tierElse && len(s.chain) > 0 {
			b.conflict = s.namedBefore(p, f, pos)
			if b.conflict != nil {
				b.elsewhere, b.cands = b.cands, nil
			}
		}
		return b
	}
	return &hunkPlaces{form: f}
}

// namedBefore lists the places before pos that the hunk's anchors name,
// in the first rung that finds the context anywhere.
func (s *hunkSpot) namedBefore(p *placer, f *hunkForm, pos int) []candidate {
	for k := range ladder {
		h := f.rung(p.text, k)
		if h == nil || len(h.cands) == 0 {
			continue
		}
		var named []candidate
		for _, c := range h.cands {
			if c.start < pos && s.tier(p, c) != tierElse {
				named = append(named, c)
			}
		}
		return named
	}
	return nil
}

// tier is what the anchors say of candidate c.
func (s *hunkSpot) tier(p *placer, c candidate) int {
	if len(s.chain) == 0 {
		return tierScoped // nothing to choose by: every place is alike
	}
	if t, ok := s.tiers[c]; ok {
		return t
	}
	t := tierElse
	switch {
	case belowAnchors(p.text, c, s.chain, true, p.ix):
		t = tierScoped
	case belowAnchors(p.text, c, s.chain, false, p.ix):
		t = tierBelow
	}
	s.tiers[c] = t
	return t
}

// insertionPlaces is where a hunk that only adds lines can go: right after
// its anchor line, or at the end of the file when it has none.
func (s *hunkSpot) insertionPlaces(p *placer, f *hunkForm, pos int) *hunkPlaces {
	ps := &hunkPlaces{form: f}
	if s.missing != "" {
		return ps
	}
	if len(s.chain) == 0 || f.h.eof {
		ps.cands = []candidate{{len(p.text), len(p.text)}}
		return ps
	}
	last := s.chain[len(s.chain)-1]
	for _, a := range last[sort.SearchInts(last, pos):] {
		// The outer anchors lie strictly above the last one.
		if belowAnchors(p.text, candidate{a - 1, a}, s.chain[:len(s.chain)-1], false, p.ix) {
			at := len(p.text)
			if nl := strings.IndexByte(p.text[a:], '\n'); nl >= 0 {
				at = a + nl + 1
			}
			ps.cands = append(ps.cands, candidate{at, at})
		}
	}
	return ps
}
