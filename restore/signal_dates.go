package restore

// dates gives the turns of the dates the question names, found or not, a
// "date" part, dateFactor: their score is raised by it, plus dateFloor.
func dates(g *gathering) {
	for _, n := range g.e.datedTurns(g.query) {
		g.turn(n)["date"] = dateFactor
	}
}
