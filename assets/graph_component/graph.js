// The Graph page's view (a Streamlit component without a build step): draws the nodes and edges the page sends
// (vis-network records from core.viz.graph_payload) and reports a click on a node back to the page.
//
// Streamlit's component protocol, by hand: post "streamlit:componentReady" once; each "streamlit:render" message
// brings the arguments; answer with "streamlit:setFrameHeight" and, on a click, "streamlit:setComponentValue".
// Book text arrives only as data: vis draws labels on a canvas and sets tooltips with innerText, the legend is
// written with textContent. Nothing here parses text as HTML.
//
// `nodes`, `edges` and `network` are globals on purpose: browser tests read the drawing through them.
var nodes = null;
var edges = null;
var network = null;

(function () {
  var drawnKey = null;
  var clicks = 0;
  var fixedLabels = false;
  var labelPx = 14;

  function send(type, data) {
    window.parent.postMessage(Object.assign({isStreamlitMessage: true, type: type}, data || {}), "*");
  }

  function showLegend(items, lines) {
    var box = document.getElementById("legend");
    box.replaceChildren();
    items.forEach(function (item) {
      var row = document.createElement("span");
      row.className = "item";
      var dot = document.createElement("span");
      dot.className = "dot";
      dot.style.background = item.color;
      row.appendChild(dot);
      row.appendChild(document.createTextNode(item.type));
      box.appendChild(row);
    });
    // One row per line style drawn: a short sample of the line, then what it means.
    (lines || []).forEach(function (item) {
      var row = document.createElement("span");
      row.className = "item line";
      var sample = document.createElement("span");
      sample.className = "sample";
      sample.style.borderTopStyle = item.style;
      sample.style.borderTopColor = item.color;
      row.appendChild(sample);
      row.appendChild(document.createTextNode(item.text));
      box.appendChild(row);
    });
  }

  // Labels keep at least labelPx pixels on screen at any zoom: the canvas font grows as the view zooms out.
  function keepReadable() {
    if (!fixedLabels || !network) {
      return;
    }
    var size = labelPx / Math.min(network.getScale(), 1);
    network.setOptions({nodes: {font: {size: size}}});
  }

  function select(id) {
    if (!network) {
      return;
    }
    if (id && nodes.get(id)) {
      network.selectNodes([id]);
    } else {
      network.unselectAll();
    }
  }

  function draw(args) {
    var status = document.getElementById("status");
    status.textContent = args.nodes.length ? "Laying out the graph…" : "Nothing to draw with these settings.";
    document.body.dataset.drawn = "";
    if (network) {
      network.destroy();
    }
    fixedLabels = args.fixed_labels;
    labelPx = args.label_px || 14;
    nodes = new vis.DataSet(args.nodes);
    edges = new vis.DataSet(args.edges);
    network = new vis.Network(document.getElementById("graph"), {nodes: nodes, edges: edges}, args.options);
    var finished = false;
    function finish() {
      if (finished) {
        return;
      }
      finished = true;
      network.setOptions({physics: false});
      network.fit();
      keepReadable();
      network.fit();   // the larger labels widen the drawing: fit again, then size the labels for that zoom
      keepReadable();
      if (args.focus && args.nodes.length > 100) {
        network.focus(args.focus, {scale: 1.0});
        keepReadable();
      }
      select(args.selected || args.focus);
      if (args.nodes.length) {
        status.textContent = "";
      }
      document.body.dataset.drawn = args.digest;
    }
    if (args.options.physics && args.options.physics.enabled) {
      network.once("stabilizationIterationsDone", finish);
    } else {
      // positioned in Python (core.viz_layout): nothing settles; finish once the first frame is drawn
      network.once("afterDrawing", finish);
      network.redraw();
    }
    network.on("zoom", keepReadable);
    network.on("click", function (event) {
      if (event.nodes.length) {
        clicks += 1;
        send("streamlit:setComponentValue",
             {value: {node: event.nodes[0], click: clicks, at: Date.now()}, dataType: "json"});
      }
    });
  }

  window.addEventListener("message", function (event) {
    var message = event.data;
    if (!message || message.type !== "streamlit:render") {
      return;
    }
    var args = message.args;
    document.getElementById("graph").style.height = args.height + "px";
    document.getElementById("hint").style.display = args.nodes.length ? "" : "none";
    send("streamlit:setFrameHeight", {height: args.height + 4});
    showLegend(args.legend || [], args.line_legend || []);
    if (args.digest !== drawnKey) {
      drawnKey = args.digest;
      draw(args);
    } else {
      select(args.selected || args.focus);
    }
  });
  send("streamlit:componentReady", {apiVersion: 1});
})();
