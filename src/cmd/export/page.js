(function () {
  var tools = document.getElementById("tools");
  function all(open) {
    document.querySelectorAll("details").forEach(function (d) { d.open = open; });
  }
  if (tools) {
    tools.hidden = false;
    document.getElementById("expand").addEventListener("click", function () { all(true); });
    document.getElementById("collapse").addEventListener("click", function () { all(false); });
  }
  window.addEventListener("beforeprint", function () { all(true); });
})();
