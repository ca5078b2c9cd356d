//! The plot of `pfcp sim` (`report.svg`): goodput against offered load per strategy with the
//! ideal, and the step over time (admitted and served rate, published metric, queue).

use std::path::Path;

use plotters::prelude::*;

use super::report::Report;

const COLOURS: [RGBColor; 5] = [
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x2c, 0xa0, 0x2c),
];

/// The `k`-th line colour (cycling).
fn colour(k: usize) -> RGBColor {
    COLOURS.get(k % COLOURS.len()).copied().unwrap_or(BLACK)
}

/// Draw `report` into the SVG file `path`.
pub(super) fn draw(report: &Report, path: &Path) -> Result<(), String> {
    let root = SVGBackend::new(path, (1000, 900)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("plot: {e}");
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, bottom) = root.split_vertically(450);
    sweep(report, &top).map_err(|e| err(&e))?;
    step(report, &bottom).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type PlotResult = Result<(), Box<dyn std::error::Error>>;

fn sweep(report: &Report, area: &Area<'_>) -> PlotResult {
    let runs = &report.virtual_time.sweep;
    let cap = report.capacity.max(1.0);
    let max_x = runs.iter().map(|r| r.load).fold(1.0, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "goodput against offered load (virtual time, capacity {:.0}/s)",
                report.capacity
            ),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d((0.3f64..max_x * 1.15).log_scale(), 0f64..1.15)?;
    chart
        .configure_mesh()
        .x_desc("offered load (multiple of capacity)")
        .y_desc("goodput / capacity")
        .draw()?;
    // The ideal: min(offered, capacity).
    let xs: Vec<f64> = (0..=60)
        .map(|i| 0.3 * (max_x * 1.15 / 0.3).powf(f64::from(i) / 60.0))
        .collect();
    chart
        .draw_series(LineSeries::new(
            xs.iter().map(|&x| (x, x.min(1.0))),
            BLACK.stroke_width(2),
        ))?
        .label("ideal")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2)));
    for (k, s) in report.scenario.strategies.iter().enumerate() {
        let colour = colour(k);
        let mut pts: Vec<(f64, f64)> = runs
            .iter()
            .filter(|r| r.strategy == s.name())
            .map(|r| (r.load, r.goodput / cap))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))?
            .label(s.name())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

fn step(report: &Report, area: &Area<'_>) -> PlotResult {
    let Some(st) = report
        .virtual_time
        .step
        .iter()
        .find(|s| s.run.strategy == pfcp_sim::Strategy::Toolkit.name())
        .or(report.virtual_time.step.first())
    else {
        return Ok(());
    };
    let series = &st.run.series;
    let end = series.last().map_or(1.0, |s| s.t);
    let cap = report.capacity.max(1.0);
    let top = series
        .iter()
        .map(|s| s.arrived.max(s.served))
        .fold(cap, f64::max)
        .min(cap * 3.0)
        * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "the step (virtual time, {}): per control interval",
                st.run.strategy
            ),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .right_y_label_area_size(56)
        .build_cartesian_2d(0f64..end, 0f64..top)?
        .set_secondary_coord(0f64..end, 0f64..100f64);
    chart
        .configure_mesh()
        .x_desc("seconds")
        .y_desc("requests per second")
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_desc("metric (%), queue (requests)")
        .draw()?;
    let line = |f: fn(&pfcp_sim::Sample) -> f64| -> Vec<(f64, f64)> {
        series.iter().map(|s| (s.t, f(s))).collect()
    };
    let offered: Vec<(f64, f64)> = series
        .iter()
        .map(|s| (s.t, (s.offered * cap).min(top)))
        .collect();
    chart
        .draw_series(LineSeries::new(offered, colour(0).stroke_width(1)))?
        .label("offered (clipped)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour(0)));
    chart
        .draw_series(LineSeries::new(
            line(|s| s.arrived),
            colour(3).stroke_width(2),
        ))?
        .label("admitted (arrived at the UPs)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour(3).stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            line(|s| s.succeeded),
            colour(4).stroke_width(2),
        ))?
        .label("succeeded")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour(4).stroke_width(2)));
    let metric: Vec<(f64, f64)> = series
        .iter()
        .map(|s| (s.t, f64::from(s.metric.iter().copied().max().unwrap_or(0))))
        .collect();
    chart
        .draw_secondary_series(LineSeries::new(metric, colour(2).stroke_width(1)))?
        .label("overload metric (highest UP)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour(2)));
    let queue: Vec<(f64, f64)> = series
        .iter()
        .map(|s| (s.t, (s.queue.iter().sum::<u64>() as f64).min(100.0)))
        .collect();
    chart
        .draw_secondary_series(LineSeries::new(queue, colour(1).stroke_width(1)))?
        .label("queue (all UPs, clipped at 100)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour(1)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
